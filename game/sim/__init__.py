"""Batch simulation (``speedheim simulate``, FORMATS.md "Additions"): bot-versus-bot games
in bulk, on local processes or a Dask cluster, and the balance report built from them.

Pure Python, no pygame. The pieces:

* :mod:`.variants`: ``--variant SPEC`` parsed and checked against the ruleset;
* :mod:`.study`: a study file (``studies/*.yaml``) and the command line resolved into a :class:`~.study.Plan`;
* :mod:`.match`: :class:`~.match.Job` and :func:`~.match.play_job`, one game;
* :mod:`.runner`: the local process pool or Dask, results streamed to disk;
* :mod:`.results`: ``games.jsonl`` (append, read, resume);
* :mod:`.coverage`: the rules a game fired (read off the typed log) and a comparison's coverage;
* :mod:`.stats`: the numbers (scipy.stats: McNemar exact, Wilson, Newcombe, Wilcoxon);
* :mod:`.robust`: each finding under every bot pairing;
* :mod:`.gaps`: stalls and rule gaps, with the commands that replay them;
* :mod:`.report`: ``summary.json`` and ``report.html``; "untested" is a verdict of its own.
"""
