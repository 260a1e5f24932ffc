// Placeholder until the target's first real file lands.
