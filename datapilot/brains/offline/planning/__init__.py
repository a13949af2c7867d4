"""The offline planner's parts: shared machinery in `base`, one mixin per metric family.

`datapilot.brains.offline.planner` composes the families into the planner; use `build_plan` there.
"""
