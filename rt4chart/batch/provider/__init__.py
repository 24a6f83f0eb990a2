"""The LLM judge through a provider's batch interface (OpenAI's Batch API) or batch files (vLLM's
`run_batch`): the audit moves in rounds, each round one provider batch of the requests it is waiting for."""
