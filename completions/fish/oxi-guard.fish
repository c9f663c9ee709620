# fish completion for oxi-guard(1)
complete -c oxi-guard -f
complete -c oxi-guard -s h -l help -d 'Print usage and exit'
complete -c oxi-guard -l version -d 'Print version and exit'
complete -c oxi-guard -s v -d 'Verbose: print debug lines too'
complete -c oxi-guard -s d -x -d 'Write a newline to fd when ready'
complete -c oxi-guard -s l -x -d 'Longest record in bytes'
complete -c oxi-guard -s a -x -d 'Allowlist entries (in)'
complete -c oxi-guard -s m -x -d 'Size limit on a text in bytes'
complete -c oxi-guard -s s -r -F -d 'File of secret values to redact (out)'
complete -c oxi-guard -n 'not __fish_seen_subcommand_from in out' -a in -d 'Check senders and sizes of incoming messages'
complete -c oxi-guard -n 'not __fish_seen_subcommand_from in out' -a out -d 'Redact secrets from replies'
