"""The Analyze workspace (leaderboards, tests, agreement, plots, HTML report)."""
