
ê/
conv1/Conv2Dÿ6((Bconv1/Conv2D = Conv2D(x)P2
conv1/BiasAddÿ6(Bconv1/BiasAdd = BiasAdd(x)P)

conv1/Reluÿ6(Bconv1/Relu = Relu(x)P