# fish completion for oxi-llm
function __oxi_llm_cmd
	set -l w (commandline -opc)
	test (count $w) -ge 2; and contains -- $w[2] $argv
end
function __oxi_llm_first
	test (count (commandline -opc)) -eq 1
end
complete -c oxi-llm -f
complete -c oxi-llm -n __oxi_llm_first -a 'logs models prompt' -d 'command'
complete -c oxi-llm -n '__oxi_llm_cmd logs' -a 'on off status path'
complete -c oxi-llm -n '__oxi_llm_cmd logs' -s c -l current -d 'the last conversation'
complete -c oxi-llm -n '__oxi_llm_cmd logs' -l cid -l conversation -x -d 'that conversation'
complete -c oxi-llm -n '__oxi_llm_cmd logs' -s n -l count -x -d 'how many (0: all)'
complete -c oxi-llm -n '__oxi_llm_cmd logs' -l json -d 'one JSON object a line'
complete -c oxi-llm -n '__oxi_llm_cmd models' -a 'default (oxi-llm -M 2>/dev/null | string match -v "*\*")'
complete -c oxi-llm -s v -l verbose -d 'log each request URL and size'
complete -c oxi-llm -s m -l model -x -a '(oxi-llm -M 2>/dev/null | string match -v "*\*") anthropic/ gemini/ openai/ openai-responses/ ollama/ openrouter/ groq/ deepseek/ mistral/ together/ xai/ lmstudio/ vllm/ llamacpp/' -d 'model, provider/name, or a chain a/x,b/y'
complete -c oxi-llm -s s -l system -x -d 'system message'
complete -c oxi-llm -s o -l option -x -a 'temperature top_p top_k max_tokens seed stop reasoning_effort' -d 'a model option, KEY VALUE'
complete -c oxi-llm -s a -l attachment -r -F -d 'attach an image or a PDF, a file or URL'
complete -c oxi-llm -l at -l attachment-type -r -F -d 'attach FILE TYPE'
complete -c oxi-llm -s c -l continue -d 'continue the last conversation'
complete -c oxi-llm -l cid -l conversation -x -d 'continue that conversation'
complete -c oxi-llm -s n -l no-log -d 'do not log this prompt'
complete -c oxi-llm -l log -d 'log this prompt even if logging is off'
complete -c oxi-llm -s u -l usage -d 'print usage and cost on stderr'
complete -c oxi-llm -s x -l extract -d 'print the first fenced code block only'
complete -c oxi-llm -l xl -l extract-last -d 'print the last fenced code block only'
complete -c oxi-llm -l no-stream -d 'ask for the whole reply at once'
complete -c oxi-llm -s b -l budget -x -a 'day= month= session=' -d 'budget in USD per period'
complete -c oxi-llm -s j -l records -d 'record mode: llm.request and embed.request records on stdin'
complete -c oxi-llm -s W -l warm -d 'open connections to the providers before readiness'
complete -c oxi-llm -s d -l notify-fd -x -d 'readiness file descriptor'
complete -c oxi-llm -s l -l max-line -x -d 'record size cap in bytes'
complete -c oxi-llm -l record -r -F -d 'append requests and answers to a file'
complete -c oxi-llm -l replay -r -F -d 'answer from a recording, without the network'
complete -c oxi-llm -s M -l models -d 'list the known models'
complete -c oxi-llm -l help -d 'print usage'
complete -c oxi-llm -l version -d 'print version'
