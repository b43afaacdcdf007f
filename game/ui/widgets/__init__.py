"""Widgets of the table window: banner, unit card, log view, dice tray, dialogs."""
