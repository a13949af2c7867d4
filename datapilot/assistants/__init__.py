"""The assistant platform: assistants, chats and messages in the store (`repo`), the history
as model messages (`normalise`), one turn of an assistant (`runtime`) and chats end to end
(`service`)."""
