"""The Curate workspace: sample list, sample view, prompt editing, image roles, boxes."""
