"""trees"""
