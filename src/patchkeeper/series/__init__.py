"""series"""
