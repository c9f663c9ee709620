# fish completion for oxi-chat
complete -c oxi-chat -f
complete -c oxi-chat -s n -l new -d 'start a fresh session: /new first'
complete -c oxi-chat -s v -l verbose -d 'every stage logs more'
complete -c oxi-chat -s c -l chat -x -d 'a named conversation'
complete -c oxi-chat -s m -l model -x -a 'openai/ ollama/ llamacpp/ vllm/ openrouter/ groq/ deepseek/' -d 'model as provider/name'
complete -c oxi-chat -s s -l system -x -d 'system prompt text or @file'
complete -c oxi-chat -s w -l workspace -x -a '(__fish_complete_directories)' -d 'workspace directory'
complete -c oxi-chat -l help -d 'print usage'
complete -c oxi-chat -l version -d 'print version'
