# fish completion for oxi-svc
complete -c oxi-svc -x -a '(__fish_complete_directories)'
complete -c oxi-svc -s s -l supervisor -x -a 's6 runit' -d 'the supervisor'
complete -c oxi-svc -s c -l channel -x -a 'telegram slack discord' -d 'the chat platform'
complete -c oxi-svc -s m -l model -x -a 'openai/ anthropic/ gemini/ ollama/ llamacpp/ vllm/ openrouter/ groq/ deepseek/' -d 'model as provider/name'
complete -c oxi-svc -s a -l account -x -d 'the bot account name'
complete -c oxi-svc -l help -d 'print usage'
complete -c oxi-svc -l version -d 'print version'
