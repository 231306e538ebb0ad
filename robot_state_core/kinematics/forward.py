"""Forward kinematics: local joint transforms, link poses (single and batched), KinematicsData.

One kernel per quantity: local joint transforms come from :func:`local_transforms` (joint
motions from :mod:`robot_state_core.description.joint_motion`); a single configuration composes
them by pointer jumping (:func:`compose_single`); batches go through the level sweep
:func:`sweep_levels` in structure-of-arrays layout. Conventions:
:mod:`robot_state_core.kinematics`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import math

import numpy as np
from numpy.typing import ArrayLike

from robot_state_core._typing import (
    as_finite_float,
    as_float_array,
    FloatArray,
    IntArray,
)
from robot_state_core.description.joint_motion import multi_dof_motion
from robot_state_core.description.joints import JointType
from robot_state_core.description.scene_graph import SceneGraph
from robot_state_core.errors import InvalidArgumentError, InvalidTypeError, ModelMismatchError
from robot_state_core.kinematics.plan import check_configuration, check_link, KinematicsPlan, plan
from robot_state_core.model.robot_model import RobotModel

# ---------------------------------------------------------------------------- local transforms


def local_joint_transforms(model: RobotModel, q: ArrayLike) -> FloatArray:
    """``X_PC(q)`` of every joint: the child link's pose in its parent link.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions (rad, m; quaternions xyzw, normalized here).

    Returns:
        ``(..., J, 4, 4)`` poses, joint order.
    """
    qa, p = check_configuration(model, q, 'local_joint_transforms')
    return local_transforms(model, p, qa)


def local_transforms(model: RobotModel, p: KinematicsPlan, q: FloatArray) -> FloatArray:
    """The local-transform kernel: ``X_PC = X_PJ M(q)`` ``(..., J, 4, 4)`` for ``(..., nq)``.

    1-DOF joints: ``B0 + sin θ B1 + (1 - cos θ) B2 + θ B3`` (the plan's coefficients, built
    from :func:`~robot_state_core.description.joint_motion.one_dof_motion_coefficients`) as one
    ``(..., J, 1, 4) @ (J, 4, 16)`` product; multi-DOF joints through
    :func:`~robot_state_core.description.joint_motion.multi_dof_motion`.
    """
    J = p.joint_count
    # No mask needed: the coefficients of joints without one variable are zero (and q is
    # finite), so whatever variable their theta_index reads contributes nothing.
    if q.ndim == 1:  # the hot single-configuration path: no batch bookkeeping
        theta = q[p.theta_index] if q.size else np.zeros(J)
        coef = p.coef_template.copy()  # (J, 1, 4); rows of its transpose are cheap views
        factors = coef.reshape(J, 4).T
        shape: tuple[int, ...] = (J, 4, 4)
    else:
        theta = q[..., p.theta_index] if q.shape[-1] else np.zeros((*q.shape[:-1], J))
        coef = np.array(np.broadcast_to(p.coef_template, (*q.shape[:-1], J, 1, 4)))
        factors = np.moveaxis(coef.reshape(*q.shape[:-1], J, 4), -1, 0)
        shape = (*q.shape[:-1], J, 4, 4)
    np.sin(theta, out=factors[1])
    one_minus_cos = factors[2]
    np.cos(theta, out=one_minus_cos)
    np.subtract(1.0, one_minus_cos, out=one_minus_cos)
    factors[3] = theta
    X: FloatArray = np.matmul(coef, p.coefficients_jk).reshape(shape)
    if p.planar.size or p.floating.size or p.rpy.size:
        X = _multi_dof_transforms(model, p, q, X)
    return X


def _multi_dof_transforms(model: RobotModel, p: KinematicsPlan, q: FloatArray,
                          X: FloatArray) -> FloatArray:
    X_PJ = np.asarray(model.joint_origins)
    motions = []
    if p.planar.size:
        motions.append((p.planar, multi_dof_motion(JointType.PLANAR, q[..., p.planar_q],
                                                   p.planar_basis)))
    if p.floating.size:
        motions.append((p.floating, multi_dof_motion(JointType.FLOATING, q[..., p.floating_q])))
    if p.rpy.size:
        motions.append((p.rpy, multi_dof_motion(JointType.RPY_FLOATING, q[..., p.rpy_q])))
    for joints, M in motions:
        X[..., joints, :, :] = X_PJ[joints] @ M
    return X


# ---------------------------------------------------------------------------- forward kinematics


def forward_kinematics(model: RobotModel, q: ArrayLike) -> FloatArray:
    """Pose of every link in the model frame.

    Args:
        model: The robot model.
        q: ``(..., nq)`` joint positions.

    Returns:
        ``X_WL`` ``(..., L, 4, 4)``; ``X_WL[..., 0]`` (the root) is the identity.
    """
    qa, p = check_configuration(model, q, 'forward_kinematics')
    if qa.ndim == 1:
        return compose_single(p, p.link_count, local_transforms(model, p, qa))
    flat = qa.reshape(math.prod(qa.shape[:-1]), model.nq)
    X = np.moveaxis(sweep_levels(model, p, flat.shape[0], Q=flat), -1, 0)  # validated
    return X.reshape(qa.shape[:-1] + X.shape[1:])


class KinematicsData:
    """Per-evaluation results of one model (Pinocchio's ``Data``; design study's workspace).

    The model holds what never changes (its arrays and :class:`KinematicsPlan`); a data
    object holds what one evaluation produces. :func:`update_forward_kinematics` fills it; a
    :class:`~robot_state_core.state.robot_state.RobotState` owns one. Each update stores *new*
    arrays, so arrays handed out from an earlier update keep their values.

    Attributes:
        model: The model the data belongs to.
        X_PC: ``(J, 4, 4)`` local joint transforms of the last update (child link in parent
            link); zeros before the first.
        X_WL: ``(L, 4, 4)`` link poses in the model frame of the last update; zeros before
            the first.

    Raises:
        InvalidTypeError: ``model`` is not a :class:`RobotModel`.
    """

    __slots__ = ('X_PC', 'X_WL', 'model')

    def __init__(self, model: RobotModel) -> None:
        if not isinstance(model, RobotModel):
            raise InvalidTypeError(f'KinematicsData: model must be a RobotModel, got '
                                   f'{type(model).__name__}')
        self.model = model
        self.X_PC: FloatArray = np.zeros((model.joint_count, 4, 4))
        self.X_WL: FloatArray = np.zeros((model.link_count, 4, 4))

    def copy(self) -> KinematicsData:
        """An independent copy (same model, copied arrays)."""
        other = KinematicsData.__new__(KinematicsData)
        other.model, other.X_PC, other.X_WL = self.model, self.X_PC.copy(), self.X_WL.copy()
        return other


def update_forward_kinematics(model: RobotModel, data: KinematicsData,
                              q: ArrayLike) -> FloatArray:
    """FK of one configuration into ``data`` (Pinocchio ``forwardKinematics(model, data, q)``).

    The same kernel as :func:`forward_kinematics` for a single configuration.

    Args:
        model: The robot model.
        data: The model's :class:`KinematicsData`; ``data.X_PC`` and ``data.X_WL`` are
            replaced by new arrays.
        q: ``(nq,)`` joint positions.

    Returns:
        ``data.X_WL`` ``(L, 4, 4)``.

    Raises:
        InvalidArgumentError: ``q`` is malformed, or is a batch.
        ModelMismatchError: ``data`` belongs to another model.
    """
    if data.model is not model:
        raise ModelMismatchError('update_forward_kinematics: data belongs to another model')
    qa, p = check_configuration(model, q, 'update_forward_kinematics')
    if qa.ndim != 1:
        raise InvalidArgumentError(f'update_forward_kinematics: q must have shape '
                                   f'({model.nq},), got {qa.shape}')
    data.X_PC = local_transforms(model, p, qa)
    data.X_WL = compose_single(p, p.link_count, data.X_PC)
    return data.X_WL


def compose_link_poses(model: RobotModel, X_PC: FloatArray) -> FloatArray:
    """Compose local joint transforms ``(..., J, 4, 4)`` into link poses ``(..., L, 4, 4)``.

    Raises:
        InvalidArgumentError: ``X_PC`` is not a finite ``(..., J, 4, 4)`` array.
    """
    try:
        X_PC = np.asarray(X_PC, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f'compose_link_poses: X_PC is not numeric ({err})') from err
    if X_PC.shape[-3:] != (model.joint_count, 4, 4):
        raise InvalidArgumentError(f'compose_link_poses: X_PC must have shape (..., '
                                   f'{model.joint_count}, 4, 4), got {X_PC.shape}')
    if not np.isfinite(X_PC).all():
        raise InvalidArgumentError('compose_link_poses: X_PC contains NaN or inf')
    p = plan(model)
    L = model.link_count
    batch = X_PC.shape[:-3]
    if not batch:
        return compose_single(p, L, X_PC)
    soa = np.moveaxis(X_PC.reshape((-1, *X_PC.shape[-3:])), 0, -1)
    X = np.moveaxis(sweep_levels(model, p, soa.shape[-1], X_PC=soa), -1, 0)
    return X.reshape(batch + X.shape[1:])


def compose_single(p: KinematicsPlan, L: int, X_PC: FloatArray) -> FloatArray:
    """Pointer jumping: ``Y[l] <- Y[anc[l]] @ Y[l]``; slot ``L`` (and the root) is the identity."""
    if p.child_in_order:  # one allocation instead of four writes
        Y = np.concatenate((_EYE4_STACK, X_PC, _EYE4_STACK))
    else:
        Y = np.empty((L + 1, 4, 4))
        Y[0] = _EYE4
        Y[L] = _EYE4
        Y[p.child] = X_PC
    for anc in p.jump_ancestors:
        Y = Y[anc] @ Y
    return Y[:L]


_EYE4 = np.eye(4)
_EYE4_STACK = _EYE4[None]


def forward_kinematics_soa(model: RobotModel, q: ArrayLike) -> FloatArray:
    """Batched FK in structure-of-arrays layout (the fastest form for large batches).

    Args:
        model: The robot model.
        q: ``(N, nq)`` joint positions.

    Returns:
        ``(L, 4, 4, N)``: ``[..., n]`` is the ``X_WL`` stack of configuration ``n``.
    """
    qa, p = check_configuration(model, q, 'forward_kinematics_soa')
    flat = qa.reshape(math.prod(qa.shape[:-1]), model.nq)
    return sweep_levels(model, p, flat.shape[0], Q=flat)


def link_pose(model: RobotModel, q: ArrayLike, link: str | int) -> FloatArray:
    """``X_WL`` ``(..., 4, 4)`` of one link (computes all links; cache the full FK instead).

    Raises:
        UnknownNameError: Unknown link name.
        InvalidIndexError: Link index out of range or negative.
        InvalidTypeError: ``link`` is neither a name nor an int.
    """
    index = check_link(model, link, 'link_pose')
    return forward_kinematics(model, q)[..., index, :, :]


def fixed_frame_poses(X_WL: FloatArray, links: IntArray, X_LF: FloatArray) -> FloatArray:
    """``X_WF = X_WL[link(F)] @ X_LF`` ``(F, 4, 4)`` of frames fixed on links (collision bodies).

    Args:
        X_WL: ``(L, 4, 4)`` link poses.
        links: ``(F,)`` link of each frame.
        X_LF: ``(F, 4, 4)`` frame poses in their link.
    """
    out: FloatArray = X_WL[links] @ X_LF
    return out


# ---------------------------------------------------------------------------- scene state (SG-49)


@dataclass(frozen=True)
class SceneState:
    """tesseract's ``SceneState`` (SG-C8): joint values and the resulting world transforms.

    Attributes:
        joints: The variable values used, ``{variable name: value}`` (every model variable).
        link_transforms: ``{link name: X_WL (4, 4)}`` in the model frame.
        joint_transforms: ``{joint name: X_WC (4, 4)}``: the joint frame after its motion, which
            is the child link's frame (tesseract gives both for convenience).
    """

    joints: dict[str, float]
    link_transforms: dict[str, FloatArray]
    joint_transforms: dict[str, FloatArray]


def compute_scene_state(model: RobotModel | SceneGraph,
                        joint_values: Mapping[str, object] | None = None) -> SceneState:
    """Compute a :class:`SceneState` from joint values (SG-49; tesseract's state solver).

    Args:
        model: A :class:`~robot_state_core.model.robot_model.RobotModel`, or a
            :class:`~robot_state_core.description.scene_graph.SceneGraph` (compiled on the fly).
        joint_values: ``{variable or 1-DOF joint name: value}``, or multi-DOF ``{joint name:
            (nq_j,) values}``; unspecified variables take the model's defaults. Mimic joints
            follow their sources.

    Raises:
        UnknownNameError: A name is neither a variable nor a joint of the model.
    """
    if not isinstance(model, RobotModel):
        model = RobotModel.from_scene_graph(model)
    q = np.array(model.default_positions, dtype=np.float64)
    if joint_values is not None and not isinstance(joint_values, Mapping):
        raise InvalidTypeError(f'compute_scene_state: joint_values must be a mapping, got '
                               f'{type(joint_values).__name__}')
    for name, value in (joint_values or {}).items():
        if model.has_variable(name):
            q[model.variable_index(name)] = as_finite_float(value, 'compute_scene_state',
                                                            f'value of {name!r}')
        else:
            j = model.joint_index(name)
            start, n = int(model.joint_q_start[j]), int(model.joint_nq[j])
            values = as_float_array(value, 'compute_scene_state', f'values of {name!r}')
            if values.size != n:
                raise InvalidArgumentError(f'compute_scene_state: joint {name!r} needs {n} '
                                           f'value(s), got {values.size}')
            q[start:start + n] = values.reshape(n)
    model.apply_mimic(q)
    X_WL = forward_kinematics(model, q)
    links = {name: X_WL[i] for i, name in enumerate(model.link_names)}
    joints = {name: X_WL[int(model.joint_child_link[j])]
              for j, name in enumerate(model.joint_names)}
    return SceneState(dict(zip(model.variable_names, q.tolist(), strict=True)), links, joints)


def sweep_levels(model: RobotModel, p: KinematicsPlan, N: int, *, Q: FloatArray | None = None,
                  X_PC: FloatArray | None = None) -> FloatArray:
    """The batched FK kernel: link poses ``(L, 4, 4, N)``, swept over the tree level by level.

    From positions ``Q`` ``(N, nq)``, per tree level: ``A = X_WP @ X_PJ U`` (a product with a
    constant matrix), then the joint's motion as a cheap column mix (revolute: the rotation
    about z between two columns of ``A``, the axis turned onto z by the plan's ``U``;
    prismatic: a translation along a known column), then ``@ U^T`` for off-z axes;
    multi-DOF joints compose their :func:`_multi_dof_transforms`. From given local transforms
    ``X_PC`` ``(J, 4, 4, N)`` (:func:`compose_link_poses`), every joint composes generically.
    Loops run over tree levels and joint kinds only.
    """
    L = model.link_count
    X = np.empty((L, 4, 4, N))
    X[:, 3, :3] = 0.0
    X[:, 3, 3] = 1.0
    X[0, :3] = np.eye(4)[:3, :, None]
    if X_PC is not None:
        for (joints, parents, children), single in zip(p.levels, p.single_levels, strict=True):
            if single is not None:
                j, par, ch = single
                P, C = X[par], X_PC[j]
                np.einsum('ikn,kjn->ijn', P[:3, :3], C[:3, :], out=X[ch, :3, :])
                X[ch, :3, 3] += P[:3, 3]
            else:
                P, C = X[parents], X_PC[joints]
                out = np.einsum('likn,lkjn->lijn', P[:, :3, :3], C[:, :3, :])
                out[:, :, 3] += P[:, :3, 3]
                X[children, :3, :] = out
        return X
    if Q is None:
        raise InvalidArgumentError('sweep_levels: give Q or X_PC')
    QT = np.ascontiguousarray(Q.T)
    for groups in p.structured.levels:
        fixed, revolute, prismatic, other = groups
        for kind, g in enumerate((fixed, revolute, prismatic)):
            if g is None:
                continue
            P = X[g.parents, :3]  # (m, 3, 4, N)
            A = np.einsum('mikn,mkj->mijn', P[:, :, :3], g.pre[:, :3, :])
            A[:, :, 3] += P[:, :, 3]
            if kind == 1:
                theta = QT[g.q]  # (m, N)
                c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
                A0 = A[:, :, 0].copy()
                A[:, :, 0] = c * A0 + s * A[:, :, 1]
                A[:, :, 1] = c * A[:, :, 1] - s * A0
                if g.post is not None:
                    A[:, :, :3] = np.einsum('mikn,mkj->mijn', A[:, :, :3], g.post)
            elif kind == 2:
                # translation along the joint axis: R_WJ @ axis_J * q
                A[:, :, 3] += np.einsum('mikn,mk->min', A[:, :, :3], g.axis) * QT[g.q][:, None]
            X[g.children, :3] = A
        if other is not None:  # planar / floating / rpy_floating: generic product
            dense = np.broadcast_to(np.eye(4), (N, model.joint_count, 4, 4)).copy()
            dense = _multi_dof_transforms(model, p, Q, dense)
            C = np.moveaxis(dense[:, other.joints], 0, -1)  # (m, 4, 4, N)
            P = X[other.parents]
            out = np.einsum('mikn,mkjn->mijn', P[:, :3, :3], C[:, :3, :])
            out[:, :, 3] += P[:, :3, 3]
            X[other.children, :3] = out
    return X
