# fish completion for oxi-guard(1)
set -l subs in out tool pairing audit
complete -c oxi-guard -f
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -s h -l help -d 'Print usage and exit'
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -l version -d 'Print version and exit'
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -a in -d 'Check senders and sizes of incoming messages'
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -a out -d 'Redact secrets from replies'
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -a tool -d 'Hold risky tool calls of a tainted turn'
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -a pairing -d 'List, approve or revoke pairing requests'
complete -c oxi-guard -n "not __fish_seen_subcommand_from $subs" -a audit -d 'Verify the audit log'
complete -c oxi-guard -n "__fish_seen_subcommand_from in out tool" -s v -d 'Verbose: print debug lines too'
complete -c oxi-guard -n "__fish_seen_subcommand_from in out tool" -s d -x -d 'Write a newline to fd when ready'
complete -c oxi-guard -n "__fish_seen_subcommand_from in out tool" -s l -x -d 'Longest record in bytes'
complete -c oxi-guard -n "__fish_seen_subcommand_from in" -s a -x -d 'Allowlist entries'
complete -c oxi-guard -n "__fish_seen_subcommand_from in out" -s m -x -d 'Size limit on a text in bytes'
complete -c oxi-guard -n "__fish_seen_subcommand_from out" -s s -r -F -d 'File of secret values to redact'
complete -c oxi-guard -n "__fish_seen_subcommand_from tool" -s p -r -F -d 'Tool policy file'
complete -c oxi-guard -n "__fish_seen_subcommand_from pairing" -a 'list approve revoke'
complete -c oxi-guard -n "__fish_seen_subcommand_from audit" -a verify -d 'Verify the hash chain'
