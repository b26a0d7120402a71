"""From records and engine events to what the page shows: rows, the timeline, run labels,
token figures and plain failure words. No writes."""
