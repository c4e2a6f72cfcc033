"""Models: synthetic table scenes, detector training and export, the shipped weights and their model card.

Built in issue 3; imports nothing from the app layer.
"""
