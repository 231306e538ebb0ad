"""ROS-free cores of what the nodes publish: TF transforms, RViz markers, the demo joint sweep."""
