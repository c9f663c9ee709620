# fish completion for oxi-doctor
complete -c oxi-doctor -f
complete -c oxi-doctor -s j -l json -d 'one JSON record per check'
complete -c oxi-doctor -s o -l online -d 'cheap real calls too'
complete -c oxi-doctor -s m -l model -x -a 'openai/ anthropic/ gemini/ ollama/ llamacpp/ vllm/ openrouter/ groq/ deepseek/' -d 'the model to check'
complete -c oxi-doctor -s s -l service -x -a '(__fish_complete_directories)' -d 'a service tree to check'
complete -c oxi-doctor -l help -d 'print usage'
complete -c oxi-doctor -l version -d 'print version'
