"""The store's contract (port, records), its in-memory implementation, and what both store implementations share: client order, forks, workspace names, search."""
