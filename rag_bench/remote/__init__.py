"""Remote model APIs (Voyage, Anthropic): keys, official clients, retries, usage and prices."""
