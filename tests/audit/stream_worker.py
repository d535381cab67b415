"""The releases of one upstream file in the shape of vLLM 0.28.0's unconditional
``wait_stream`` in ``kv_offload/cpu/gpu_worker.py``: the pin (``OLD``), a release that takes
a backport as it is (``MID``), one that rewrites the backport's comment and the stream it
waits on, and a line beside it (``NEW``); the backport (``BACKPORT``) and a patch of our own
(``OWN``), as bare diffs of ``pkg/worker.py``."""

from __future__ import annotations

HEAD = """class Worker:
    def transfer_async(self, stream, job_id):
        event = stream.record()

"""
TAIL = """        if self._transfers:
            last = self._transfers[-1]
            stream.wait_event(last.end_event)
        self.retries = 3
        return event
"""
OLD = (
    HEAD
    + """        if self.gpu_to_cpu:
            # wait for model computation to finish before offloading
            stream.wait_stream(current_stream())
"""
    + TAIL
)
MID = (
    HEAD
    + """        # Stores must wait for the model to finish writing the KV they read.
        # Loads must wait for pending writes to their destination blocks.
        stream.wait_stream(current_stream())
"""
    + TAIL
)
NEW = (
    HEAD
    + """        # Stores must wait for the model to finish writing the KV they read;
        # loads must wait for pending zeroing of a reallocated block.
        stream.wait_stream(compute_stream())
"""
    + TAIL.replace("self.retries = 3", "self.retries = 5")
)

BACKPORT = """--- a/pkg/worker.py
+++ b/pkg/worker.py
@@ -2,9 +2,9 @@ class Worker:
     def transfer_async(self, stream, job_id):
         event = stream.record()
 
-        if self.gpu_to_cpu:
-            # wait for model computation to finish before offloading
-            stream.wait_stream(current_stream())
+        # Stores must wait for the model to finish writing the KV they read.
+        # Loads must wait for pending writes to their destination blocks.
+        stream.wait_stream(current_stream())
         if self._transfers:
             last = self._transfers[-1]
             stream.wait_event(last.end_event)
"""

OWN = """--- a/pkg/worker.py
+++ b/pkg/worker.py
@@ -8,5 +8,5 @@ class Worker:
         if self._transfers:
             last = self._transfers[-1]
             stream.wait_event(last.end_event)
-        self.retries = 3
+        self.retries = 4
         return event
"""
