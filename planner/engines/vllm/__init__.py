"""vLLM: its profile (:mod:`.profile`), block accounting (:mod:`.blocks`), start-up report and launch command
(:mod:`.report`), and the registry entry (:mod:`.engine`). This ``__init__`` imports nothing."""
