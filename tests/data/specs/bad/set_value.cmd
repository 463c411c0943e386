check base.yaml --set problem.instance.M=-1
