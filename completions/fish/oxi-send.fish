# fish completion for oxi-send(1)
complete -c oxi-send -f
complete -c oxi-send -s h -l help -d 'Print usage and exit'
complete -c oxi-send -l version -d 'Print version and exit'
complete -c oxi-send -s D -d 'Show drafts even when stdout is not a terminal'
complete -c oxi-send -s v -d 'Verbose: print debug lines too'
complete -c oxi-send -s a -x -d 'The channel'"'"'s account (telegram, discord: the bot)'
complete -c oxi-send -s d -x -d 'Write a newline to fd when ready'
complete -c oxi-send -s e -x -d 'Show the other stages'"'"' diagnostics read on fd'
complete -c oxi-send -s l -x -d 'Longest record in bytes'
complete -c oxi-send -s r -x -d 'Write receipts to fd'
complete -c oxi-send -n 'not __fish_seen_subcommand_from cli telegram discord' -a cli -d 'The terminal: replies printed on stdout'
complete -c oxi-send -n 'not __fish_seen_subcommand_from cli telegram discord' -a telegram -d 'A Telegram bot, through the Bot API'
complete -c oxi-send -n 'not __fish_seen_subcommand_from cli telegram discord' -a discord -d 'A Discord bot, through the REST API'
