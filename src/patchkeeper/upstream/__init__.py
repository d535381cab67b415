"""upstream"""
