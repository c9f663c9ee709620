# fish completion for oxi-chat
complete -c oxi-chat -f
complete -c oxi-chat -s v -d 'every stage logs more'
complete -c oxi-chat -s m -x -a 'openai/ ollama/ llamacpp/ vllm/ openrouter/ groq/ deepseek/' -d 'model as provider/name'
complete -c oxi-chat -s s -x -d 'system prompt text or @file'
complete -c oxi-chat -s w -x -a '(__fish_complete_directories)' -d 'workspace directory'
complete -c oxi-chat -l help -d 'print usage'
complete -c oxi-chat -l version -d 'print version'
