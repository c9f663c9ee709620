# fish completion for oxi-mem
complete -c oxi-mem -f
complete -c oxi-mem -s v -d 'log more'
complete -c oxi-mem -s d -x -d 'readiness file descriptor'
complete -c oxi-mem -s f -r -F -d 'memory database'
complete -c oxi-mem -s l -x -d 'record size cap in bytes'
complete -c oxi-mem -l help -d 'print usage'
complete -c oxi-mem -l version -d 'print version'
complete -c oxi-mem -n __fish_use_subcommand -a link -d 'link a scope to a person'
complete -c oxi-mem -n __fish_use_subcommand -a unlink -d 'unlink a scope'
complete -c oxi-mem -n __fish_use_subcommand -a links -d 'list the links'
complete -c oxi-mem -n __fish_use_subcommand -a export -d 'write the memory as records'
complete -c oxi-mem -n __fish_use_subcommand -a import -d 'read records into the memory'
complete -c oxi-mem -n __fish_use_subcommand -a prune -d 'delete facts decayed below the floor'
