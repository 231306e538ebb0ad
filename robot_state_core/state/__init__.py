"""The MoveIt-style RobotState facade, attached bodies and the text formatting of a state."""
