ipu ipu_passes_set.yaml --set 'ipu.layer.passes=[]'
