# fish completion for oxi-recv(1)
complete -c oxi-recv -f
complete -c oxi-recv -s h -l help -d 'Print usage and exit'
complete -c oxi-recv -l version -d 'Print version and exit'
complete -c oxi-recv -s v -d 'Verbose: print debug lines too'
complete -c oxi-recv -s d -x -d 'Write a newline to fd when ready'
complete -c oxi-recv -s l -x -d 'Longest line in bytes'
complete -c oxi-recv -s c -x -d 'Chat id of every message'
complete -c oxi-recv -s t -x -d 'Thread id of every message: a named conversation'
complete -c oxi-recv -s m -x -d 'A message sent first, such as /new'
complete -c oxi-recv -s r -x -d 'Read the sender'"'"'s receipts on fd'
complete -c oxi-recv -s u -x -a '(__fish_complete_users)' -d 'User name of every message'
complete -c oxi-recv -n 'not __fish_seen_subcommand_from cli' -a cli -d 'The terminal: one message per line of stdin'
