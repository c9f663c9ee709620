#!/bin/sh
# npm-deps.sh - install the real MCP peers the oxi-tool tests talk to,
# from the npm registry, into tests/npm (git-ignored); run by make deps.
# Does nothing when npm is missing or the packages are already there;
# a failed install is reported, and the tests that need them then skip.
cd "$(dirname "$0")" || exit 111
EVERYTHING=2026.8.31	# @modelcontextprotocol/server-everything
SDK=1.32.2		# @modelcontextprotocol/sdk
have() {	# have PACKAGE VERSION: installed at that version
	grep -q "\"version\": *\"$2\"" \
		"npm/node_modules/$1/package.json" 2>/dev/null
}
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1
then
	echo "deps: no npm or node: the MCP tests with real peers will skip"
	exit 0
fi
if have @modelcontextprotocol/server-everything "$EVERYTHING" &&
    have @modelcontextprotocol/sdk "$SDK"; then
	echo "deps: npm packages present"
	exit 0
fi
echo "deps: npm install into tests/npm"
mkdir -p npm
if ! npm install --no-audit --no-fund --no-save --loglevel=error \
    --prefix npm "@modelcontextprotocol/server-everything@$EVERYTHING" \
    "@modelcontextprotocol/sdk@$SDK"; then
	echo "deps: npm install failed: the MCP tests with real peers" \
	    "will skip" >&2
fi
exit 0
