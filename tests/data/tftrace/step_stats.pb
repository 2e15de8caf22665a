
û
,/job:localhost/replica:0/task:0/device:CPU:0/
conv1/Conv2DØ6((Bconv1/Conv2D = Conv2D(x)P2
conv1/BiasAddŠ7(Bconv1/BiasAdd = BiasAdd(x)P)

conv1/Relu¼7(Bconv1/Relu = Relu(x)P"
pool1î7(Bpool1 = MaxPool(x)P/
conv2/Conv2D 8(Bconv2/Conv2D = Conv2D(x)P2
conv2/BiasAddÒ8(Bconv2/BiasAdd = BiasAdd(x)P,
conv2/Relu6„9(Bconv2/Relu6 = Relu6(x)P
gap¶9(Bgap = Mean(x)P)
	fc/MatMulè9(Bfc/MatMul = MatMul(x)P,

fc/BiasAddš:(Bfc/BiasAdd = BiasAdd(x)P
probsÌ:(P