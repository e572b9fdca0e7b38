"""tellmemore: conversational RAG whose retrieval survives follow-up turns."""
