# fish completion for oxi-tool
complete -c oxi-tool -f
complete -c oxi-tool -s U -d 'unsafe: run unconfined where no sandbox works'
complete -c oxi-tool -s v -d 'log one line per call'
complete -c oxi-tool -s d -x -d 'readiness file descriptor'
complete -c oxi-tool -s l -x -d 'record size cap in bytes'
complete -c oxi-tool -s o -x -d "cap on a result's content in bytes"
complete -c oxi-tool -s w -x -a '(__fish_complete_directories)' -d 'workspace directory'
complete -c oxi-tool -s M -r -d 'MCP configuration file'
complete -c oxi-tool -s P -x -a '(__fish_complete_directories)' -d 'plugin directories, colon-separated'
complete -c oxi-tool -a mcp -d 'serve the tools over MCP on stdio'
complete -c oxi-tool -n '__fish_use_subcommand' -a trust -d 'pin a plugin or MCP server by name'
complete -c oxi-tool -s L -l list -d 'print the tool definitions as JSON'
complete -c oxi-tool -l help -d 'print usage'
complete -c oxi-tool -l version -d 'print version'
