check base.yaml --set problem.instance.Q=4
