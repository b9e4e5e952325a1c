"""The Rate workspace: session design, merge and summaries, and the rater views."""
