#!/bin/sh
# oxi-tool sandbox, SBX-7: with bubblewrap refused, the Landlock + seccomp
# + namespaces path passes the same checks as t5101 (or the tool refuses
# to run, and the checks are skipped with the reason)
cd "$(dirname "$0")" && SBX_MECH=landlock exec ./t5101-oxi-tool-sandbox.t
