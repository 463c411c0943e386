check base.yaml --set 'problem.shape.data_spaces[7].name=W'
