#!/bin/sh
# oxi-llm -o KEY VALUE in each dialect's own words: the request fields
# temperature, top_p, top_k, max_tokens, seed, stop and thinking (from
# reasoning_effort) as the fakes' logged request bodies show them
cd "$(dirname "$0")" && . ./lib.sh && . ./llmprov.sh || exit 1
plan 14

prov_all
ALL='-o temperature 0.3 -o top_p 0.8 -o top_k 40 -o max_tokens 100 -o seed 9 -o stop END'
ask() {	# ask MODEL ARGS...
	_m=$1
	shift
	oxi-llm -m "$_m" "$@" hi </dev/null >/dev/null
}

check 'Chat Completions: all but top_k' \
	'ask openai/gpt-x $ALL &&
	 [ "$(dbody openai "[\"temperature\"]")" = 0.3 ] &&
	 [ "$(dbody openai "[\"max_tokens\"]")" = 100 ] &&
	 [ "$(dbody openai ".get(\"top_k\")")" = null ]'
check 'Anthropic: temperature, top_p, top_k, max_tokens, stop_sequences; no seed' \
	'ask anthropic/claude-x $ALL &&
	 [ "$(dbody anthropic "[\"temperature\"]")" = 0.3 ] &&
	 [ "$(dbody anthropic "[\"top_p\"]")" = 0.8 ] &&
	 [ "$(dbody anthropic "[\"top_k\"]")" = 40 ] &&
	 [ "$(dbody anthropic "[\"max_tokens\"]")" = 100 ] &&
	 [ "$(dbody anthropic "[\"stop_sequences\"]")" = "[\"END\"]" ] &&
	 [ "$(dbody anthropic ".get(\"seed\")")" = null ]'
check 'Anthropic: reasoning_effort high is a thinking budget of 24576' \
	'ask anthropic/claude-x -o reasoning_effort high &&
	 [ "$(dbody anthropic "[\"thinking\"]")" = "{\"budget_tokens\": 24576, \"type\": \"enabled\"}" ] &&
	 [ "$(dbody anthropic "[\"max_tokens\"]")" = 28672 ]'
check 'Anthropic: reasoning_effort none is no thinking' \
	'ask anthropic/claude-x -o reasoning_effort none &&
	 [ "$(dbody anthropic ".get(\"thinking\")")" = null ]'
check 'Gemini: generationConfig' \
	'ask gemini/gemini-x $ALL &&
	 [ "$(dbody gemini "[\"generationConfig\"]")" = "{\"maxOutputTokens\": 100, \"seed\": 9, \"stopSequences\": [\"END\"], \"temperature\": 0.3, \"topK\": 40, \"topP\": 0.8}" ]'
check 'Gemini: reasoning_effort medium is a thinking budget of 8192' \
	'ask gemini/gemini-x -o reasoning_effort medium &&
	 [ "$(dbody gemini "[\"generationConfig\"][\"thinkingConfig\"]")" = "{\"includeThoughts\": true, \"thinkingBudget\": 8192}" ]'
check 'Gemini: reasoning_effort none turns thinking off' \
	'ask gemini/gemini-x -o reasoning_effort none &&
	 [ "$(dbody gemini "[\"generationConfig\"][\"thinkingConfig\"]")" = "{\"includeThoughts\": false, \"thinkingBudget\": 0}" ]'
check 'Ollama: options, max_tokens as num_predict' \
	'ask ollama/llama-x $ALL &&
	 [ "$(dbody ollama "[\"options\"]")" = "{\"num_predict\": 100, \"seed\": 9, \"stop\": [\"END\"], \"temperature\": 0.3, \"top_k\": 40, \"top_p\": 0.8}" ]'
check 'Ollama: reasoning_effort high is think "high"' \
	'ask ollama/llama-x -o reasoning_effort high &&
	 [ "$(dbody ollama "[\"think\"]")" = high ]'
check 'Ollama: none is think false, minimal is "low"' \
	'ask ollama/llama-x -o reasoning_effort none &&
	 [ "$(dbody ollama "[\"think\"]")" = false ] &&
	 ask ollama/llama-x -o reasoning_effort minimal &&
	 [ "$(dbody ollama "[\"think\"]")" = low ]'
check 'Responses: temperature, top_p, max_output_tokens; no seed, no stop' \
	'ask openai-responses/o-x $ALL &&
	 [ "$(dbody responses "[\"temperature\"]")" = 0.3 ] &&
	 [ "$(dbody responses "[\"top_p\"]")" = 0.8 ] &&
	 [ "$(dbody responses "[\"max_output_tokens\"]")" = 100 ] &&
	 [ "$(dbody responses ".get(\"seed\")")" = null ] &&
	 [ "$(dbody responses ".get(\"stop\")")" = null ]'
check 'Responses: reasoning_effort is reasoning.effort' \
	'ask openai-responses/o-x -o reasoning_effort minimal &&
	 [ "$(dbody responses "[\"reasoning\"]")" = "{\"effort\": \"minimal\"}" ]'
check 'a request record with "thinking":{"effort"} is read the same way' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"r1\",\"thinking\":{\"effort\":\"low\"},\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" |
	 oxi-llm -j -m anthropic/claude-x >/dev/null &&
	 [ "$(dbody anthropic "[\"thinking\"][\"budget_tokens\"]")" = 2048 ]'
check 'budget_tokens wins over an effort' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"r2\",\"thinking\":{\"budget_tokens\":3000,\"effort\":\"high\"},\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" |
	 oxi-llm -j -m gemini/gemini-x >/dev/null &&
	 [ "$(dbody gemini "[\"generationConfig\"][\"thinkingConfig\"][\"thinkingBudget\"]")" = 3000 ]'
done_testing
