
{
y
,/job:localhost/replica:0/task:0/device:CPU:0I
pool1(B>pool1 = MaxPool(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)