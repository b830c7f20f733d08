"""RusKey (Mo et al., SIGMOD'24): the FLSM-tree with its per-level run limits tuned online by DDPG."""
