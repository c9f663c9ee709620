# fish completion for oxi-cron
complete -c oxi-cron -f
complete -c oxi-cron -s v -d 'log more'
complete -c oxi-cron -s d -x -d 'readiness file descriptor'
complete -c oxi-cron -s l -x -d 'record size cap in bytes'
complete -c oxi-cron -s f -r -F -d 'schedule database'
complete -c oxi-cron -s o -r -F -d 'where fires and tool answers go: fd or FIFO'
complete -c oxi-cron -s z -x -a '(find /usr/share/zoneinfo -type f 2>/dev/null | string replace /usr/share/zoneinfo/ "")' -d 'time zone'
complete -c oxi-cron -s n -x -d 'print the next due times of a spec'
complete -c oxi-cron -s L -d 'list the schedules as records'
complete -c oxi-cron -l help -d 'print usage'
complete -c oxi-cron -l version -d 'print version'
