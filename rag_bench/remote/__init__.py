"""Remote model APIs (Voyage, OpenAI, Cohere, HTTP, Anthropic): keys, clients, retries, pacing, usage, prices."""
