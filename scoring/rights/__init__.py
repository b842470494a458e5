"""Candidate data rights: everything held about a candidate, and its erasure."""
