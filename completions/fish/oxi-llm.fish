# fish completion for oxi-llm
complete -c oxi-llm -f
complete -c oxi-llm -s v -d 'log each request URL and size'
complete -c oxi-llm -s m -x -a 'anthropic/ gemini/ openai/ openai-responses/ ollama/ openrouter/ groq/ deepseek/ mistral/ together/ xai/ lmstudio/ vllm/ llamacpp/' -d 'model, provider/name'
complete -c oxi-llm -s s -x -d 'system message'
complete -c oxi-llm -s n -l no-stream -d 'ask for the whole reply at once'
complete -c oxi-llm -s j -d 'record mode: llm.request records on stdin'
complete -c oxi-llm -s d -x -d 'readiness file descriptor'
complete -c oxi-llm -s l -x -d 'record size cap in bytes'
complete -c oxi-llm -l help -d 'print usage'
complete -c oxi-llm -l version -d 'print version'
