check base.yaml --set 'problem.instance.M=[4, '
