"""What comes from outside: a ``config.json`` (:mod:`~planner.sources.config`), the Hugging Face Hub
(:mod:`~planner.sources.hub`) and engine start-up logs (:mod:`~planner.sources.logs`), each bounded before work."""
