# fish completion for oxi-loop
complete -c oxi-loop -f
complete -c oxi-loop -s v -d 'log more'
complete -c oxi-loop -s d -x -d 'readiness file descriptor'
complete -c oxi-loop -s l -x -d 'record size cap in bytes'
complete -c oxi-loop -s m -x -d 'model as provider/name'
complete -c oxi-loop -s s -x -d 'system prompt text or @file'
complete -c oxi-loop -s f -r -F -d 'history database'
complete -c oxi-loop -s n -x -d 'model requests per message'
complete -c oxi-loop -s H -x -d 'history messages sent to the model'
complete -c oxi-loop -s t -x -d 'least interval between drafts in ms'
complete -c oxi-loop -l help -d 'print usage'
complete -c oxi-loop -l version -d 'print version'
