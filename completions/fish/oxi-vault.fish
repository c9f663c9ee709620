# fish completion for oxi-vault
set -l cmds init list get set rm rotate exec keygen
complete -c oxi-vault -f
complete -c oxi-vault -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
complete -c oxi-vault -s f -r -F -d 'the vault file'
complete -c oxi-vault -s k -r -F -d 'the key file'
complete -c oxi-vault -s v -d 'say where each secret of exec came from'
complete -c oxi-vault -n "__fish_seen_subcommand_from get set rm" -a '(oxi-vault list 2>/dev/null </dev/null)'
complete -c oxi-vault -n "__fish_seen_subcommand_from rotate" -s K -r -F -d 'the new key file'
complete -c oxi-vault -n "__fish_seen_subcommand_from keygen" -F
complete -c oxi-vault -n "__fish_seen_subcommand_from exec" -s a -d 'every secret of the vault'
complete -c oxi-vault -n "__fish_seen_subcommand_from exec" -s r -d 'name them in OXI_REDACT_ENV'
complete -c oxi-vault -n "__fish_seen_subcommand_from exec" -s s -x -a '(oxi-vault list 2>/dev/null </dev/null)' -d 'the secrets to pass'
complete -c oxi-vault -l help -d 'print usage'
complete -c oxi-vault -l version -d 'print version'
