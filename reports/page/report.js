// The page of `loopdyn simulate --report FILE.html` (reports/html_report.cpp): the mechanism
// animated (2D: a canvas; 3D: three.js), time plots (uPlot), the run's summary and the uniqueness
// table. Everything it needs is in the file: the data in #loopdyn-data, three.js and uPlot above.
// After the first drawing it writes #loopdyn-selftest (errors, drawn pixels, plotted series) for
// the browser test (tests/apps/html_report_test.cpp).
(function () {
  'use strict';
  // (errors and console.error calls are collected from the page's first script on: window.loopdynErrors)
  const selftest = { errors: window.loopdynErrors, pixels: 0, plots: {}, ready: false };

  const D = JSON.parse(document.getElementById('loopdyn-data').textContent);
  const M = D.model;
  const column = (name) => D.columns.indexOf(name);
  const T = D.data[0];
  // non-unique columns: listed (stable names), or marked * (--mark-non-unique)
  const nonUnique = new Set(D.non_unique);
  const isNonUnique = (name) => nonUnique.has(name) || name.endsWith('*');
  const samples = T.length;
  const colours = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

  // ---- poses: every body's markers in world coordinates at sample i ----
  const bodyColumns = M.bodies.map((b) =>
    (M.dimension === 2 ? ['x', 'y', 'phi'] : ['x', 'y', 'z', 'qw', 'qx', 'qy', 'qz']).map((c) => column(b.name + '.' + c)));
  function toWorld(body, local, i) {
    if (body < 0) return local;
    const c = bodyColumns[body].map((k) => D.data[k][i]);
    if (M.dimension === 2) {
      const s = Math.sin(c[2]), k = Math.cos(c[2]);
      return [c[0] + k * local[0] - s * local[1], c[1] + s * local[0] + k * local[1], 0];
    }
    const [w, x, y, z] = [c[3], c[4], c[5], c[6]];
    const [a, b, d] = local;
    // the unit quaternion (w, x, y, z) turns body axes into world axes
    const tx = 2 * (y * d - z * b), ty = 2 * (z * a - x * d), tz = 2 * (x * b - y * a);
    return [c[0] + a + w * tx + (y * tz - z * ty), c[1] + b + w * ty + (z * tx - x * tz),
      c[2] + d + w * tz + (x * ty - y * tx)];
  }
  // a body's outline: its markers in order (closed when there are three or more), and its centre
  function outline(b) {
    const m = M.bodies[b].markers;
    if (m.length === 0) return [[0, 0, 0], [0, 0, 0]];
    if (m.length === 1) return [[0, 0, 0], m[0]];
    if (m.length === 2) return [m[0], m[1]];
    return m.concat([m[0]]);
  }
  const outlines = M.bodies.map((_, b) => outline(b));

  // bounds over the motion, for the view
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const grow = (p) => { for (let k = 0; k < 3; ++k) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); } };
  M.ground.forEach(grow);
  const stride = Math.max(1, Math.floor(samples / 50));
  for (let i = 0; i < samples; i += stride)
    outlines.forEach((o, b) => o.forEach((p) => grow(toWorld(b, p, i))));
  if (!isFinite(lo[0])) { lo.fill(-1); hi.fill(1); }
  const span = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-9);

  // ---- the view ----
  const view = document.getElementById('view');
  const background = [250, 250, 250];
  let draw;      // draw(i): the mechanism at sample i
  let countPixels;
  if (M.dimension === 2) {
    const canvas = document.createElement('canvas');
    canvas.width = 720; canvas.height = 480;
    view.appendChild(canvas);
    const g = canvas.getContext('2d');
    const scale = 0.9 * Math.min(canvas.width / Math.max(hi[0] - lo[0], 1e-9 * span + 1e-12),
      canvas.height / Math.max(hi[1] - lo[1], 1e-9 * span + 1e-12));
    const cx = 0.5 * (lo[0] + hi[0]), cy = 0.5 * (lo[1] + hi[1]);
    const px = (p) => [canvas.width / 2 + scale * (p[0] - cx), canvas.height / 2 - scale * (p[1] - cy)];
    draw = (i) => {
      g.fillStyle = `rgb(${background})`;
      g.fillRect(0, 0, canvas.width, canvas.height);
      g.fillStyle = '#555';
      for (const p of M.ground) {
        const [x, y] = px(p);
        g.beginPath(); g.moveTo(x, y); g.lineTo(x - 7, y + 10); g.lineTo(x + 7, y + 10); g.closePath(); g.fill();
      }
      g.lineWidth = 4; g.lineCap = 'round'; g.lineJoin = 'round';
      outlines.forEach((o, b) => {
        g.strokeStyle = colours[b % colours.length];
        g.beginPath();
        o.forEach((p, k) => { const [x, y] = px(toWorld(b, p, i)); if (k === 0) g.moveTo(x, y); else g.lineTo(x, y); });
        g.stroke();
      });
      // spring-dampers as zigzags between their markers
      g.lineWidth = 1.5; g.strokeStyle = '#333';
      for (const f of M.forces) {
        if (f.type !== 'spring_damper') continue;
        const [ax, ay] = px(toWorld(f.body, f.point, i)), [bx, by] = px(toWorld(f.body2, f.point2, i));
        const dx = bx - ax, dy = by - ay, l = Math.hypot(dx, dy) || 1, nx = -dy / l * 6, ny = dx / l * 6;
        g.beginPath(); g.moveTo(ax, ay);
        for (let k = 1; k < 12; ++k) { const s = 0.1 + 0.8 * k / 12, side = k % 2 ? 1 : -1; g.lineTo(ax + s * dx + side * nx, ay + s * dy + side * ny); }
        g.lineTo(bx, by); g.stroke();
      }
      for (const j of M.joints) {
        const [x, y] = px(toWorld(j.body, j.point, i));
        g.fillStyle = j.unique ? '#2a9d2a' : '#d62728';
        g.beginPath(); g.arc(x, y, 5, 0, 2 * Math.PI); g.fill();
      }
    };
    selftest.scene = { bodies: outlines.length, joints: M.joints.length,
      forces: M.forces.filter((f) => f.type === 'spring_damper').length };
    countPixels = () => {
      const d = g.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k] !== background[0] || d[k + 1] !== background[1] || d[k + 2] !== background[2]) ++n;
      return n;
    };
  } else {
    const THREE = window.THREE;
    const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setSize(720, 480);
    renderer.setClearColor(new THREE.Color(`rgb(${background})`));
    view.appendChild(renderer.domElement);
    const scene = new THREE.Scene();
    const camera = new THREE.PerspectiveCamera(40, 720 / 480, span * 1e-3, span * 100);
    const g = D.gravity;
    const gn = Math.hypot(g[0], g[1], g[2]);
    camera.up.set(gn > 0 ? -g[0] / gn : 0, gn > 0 ? -g[1] / gn : 0, gn > 0 ? -g[2] / gn : 1);
    const target = new THREE.Vector3(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    // camera orbit: drag turns it about the centre, the wheel moves it nearer
    const orbit = { azimuth: 0.8, elevation: 0.5, distance: 2.2 * span };
    const place = () => {
      const up = camera.up, ce = Math.cos(orbit.elevation);
      // two axes perpendicular to `up`
      const a = new THREE.Vector3(1, 0, 0);
      if (Math.abs(a.dot(up)) > 0.9) a.set(0, 1, 0);
      a.addScaledVector(up, -a.dot(up)).normalize();
      const b = new THREE.Vector3().crossVectors(up, a);
      camera.position.copy(target)
        .addScaledVector(a, orbit.distance * ce * Math.cos(orbit.azimuth))
        .addScaledVector(b, orbit.distance * ce * Math.sin(orbit.azimuth))
        .addScaledVector(up, orbit.distance * Math.sin(orbit.elevation));
      camera.lookAt(target);
    };
    place();
    let dragging = null;
    renderer.domElement.addEventListener('pointerdown', (e) => { dragging = [e.clientX, e.clientY]; });
    window.addEventListener('pointerup', () => { dragging = null; });
    window.addEventListener('pointermove', (e) => {
      if (!dragging) return;
      orbit.azimuth -= 0.01 * (e.clientX - dragging[0]);
      orbit.elevation = Math.max(-1.5, Math.min(1.5, orbit.elevation + 0.01 * (e.clientY - dragging[1])));
      dragging = [e.clientX, e.clientY];
      place(); draw(current);
    });
    renderer.domElement.addEventListener('wheel', (e) => {
      e.preventDefault();
      orbit.distance *= Math.exp(0.001 * e.deltaY);
      place(); draw(current);
    }, { passive: false });
    // light, so that the solids read as solids
    scene.add(new THREE.AmbientLight(0xffffff, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 2.2);
    sun.position.copy(target).addScaledVector(camera.up, 3 * span).add(new THREE.Vector3(span, 2 * span, 0.5 * span));
    scene.add(sun);
    const counts = { bodies: 0, joints: 0, forces: 0 };
    const v3 = (p) => new THREE.Vector3(p[0], p[1], p[2]);
    const yAxis = new THREE.Vector3(0, 1, 0);
    const along = (mesh, direction) => { if (direction.lengthSq() > 0) mesh.quaternion.setFromUnitVectors(yAxis, direction.clone().normalize()); return mesh; };
    // the ground plane below the motion (perpendicular to up), the world axes at the origin
    const up = camera.up.clone();
    let lowest = Infinity;
    for (const x of [lo[0], hi[0]]) for (const y of [lo[1], hi[1]]) for (const z of [lo[2], hi[2]]) lowest = Math.min(lowest, up.dot(v3([x, y, z])));
    const grid = new THREE.GridHelper(3 * span, 24, 0xb8b8b8, 0xdedede);
    along(grid, up);
    grid.position.copy(target).addScaledVector(up, lowest - up.dot(target) - 0.05 * span);
    scene.add(grid);
    scene.add(new THREE.AxesHelper(0.2 * span));
    // the bodies' thickness: 8 % of their typical outline segment, between 0.2 % and 1 % of the
    // motion's span (a long chain of short links keeps slender links; a compact mechanism as before)
    const segments = [];
    for (const o of outlines)
      for (let k = 0; k + 1 < o.length; ++k) segments.push(v3(o[k]).distanceTo(v3(o[k + 1])));
    segments.sort((a, b) => a - b);
    const typical = segments.length > 0 ? segments[Math.floor(segments.length / 2)] : span;
    const thick = Math.min(Math.max(0.08 * typical, 2e-3 * span), 0.01 * span);
    // a capsule from a to b
    const rod = (a, b, radius, material) => {
      const d = v3(b).sub(v3(a));
      const mesh = new THREE.Mesh(new THREE.CapsuleGeometry(radius, d.length(), 4, 12), material);
      mesh.position.copy(v3(a)).addScaledVector(d, 0.5);
      return along(mesh, d);
    };
    // bodies: a group in the body frame, moved by the body's pose: capsules along the outline of its
    // markers, and the box of its mass and inertia where the markers draw no outline
    const bodies = M.bodies.map((body, b) => {
      const group = new THREE.Group();
      const material = new THREE.MeshLambertMaterial({ color: colours[b % colours.length] });
      const o = outlines[b];
      for (let k = 0; k + 1 < o.length; ++k)
        if (v3(o[k]).distanceTo(v3(o[k + 1])) > 1e-9 * span) group.add(rod(o[k], o[k + 1], thick, material));
      if (body.markers.length < 2 || group.children.length === 0) {
        const s = body.box.map((x) => Math.min(Math.max(x, 2 * thick), 0.5 * span));
        const box = new THREE.Mesh(new THREE.BoxGeometry(s[0], s[1], s[2]), material);
        const a = body.box_axes;  // its columns: the principal axes in the body frame
        box.quaternion.setFromRotationMatrix(new THREE.Matrix4().set(a[0][0], a[0][1], a[0][2], 0, a[1][0], a[1][1],
          a[1][2], 0, a[2][0], a[2][1], a[2][2], 0, 0, 0, 0, 1));
        group.add(box);
      }
      scene.add(group);
      if (group.children.length > 0) ++counts.bodies;
      return group;
    });
    // joints as their type, on their first marker's body, along its axis; green unique, red not
    const jointMesh = (j) => {
      const material = new THREE.MeshLambertMaterial({ color: j.unique ? 0x2a9d2a : 0xd62728 });
      const r = 2.4 * thick, axis = v3(j.axis);
      let mesh;
      if (j.type === 'revolute' || j.type === 'cylindrical')
        mesh = along(new THREE.Mesh(new THREE.CylinderGeometry(r, r, (j.type === 'revolute' ? 6 : 12) * thick, 20), material), axis);
      else if (j.type === 'prismatic')
        mesh = along(new THREE.Mesh(new THREE.BoxGeometry(1.6 * r, 12 * thick, 1.6 * r), material), axis);
      else if (j.type === 'universal') {
        mesh = new THREE.Group();
        mesh.add(along(new THREE.Mesh(new THREE.CylinderGeometry(0.6 * r, 0.6 * r, 6 * thick, 12), material), axis));
        const across = new THREE.Vector3(1, 0, 0).cross(axis).lengthSq() > 1e-6 ? new THREE.Vector3(1, 0, 0).cross(axis) : new THREE.Vector3(0, 1, 0).cross(axis);
        mesh.add(along(new THREE.Mesh(new THREE.CylinderGeometry(0.6 * r, 0.6 * r, 6 * thick, 12), material), across));
      } else if (j.type === 'fixed')
        mesh = new THREE.Mesh(new THREE.BoxGeometry(2 * r, 2 * r, 2 * r), material);
      else
        mesh = new THREE.Mesh(new THREE.SphereGeometry(1.3 * r, 20, 14), material);  // spherical and the rest
      mesh.position.copy(v3(j.point));
      (j.body >= 0 ? bodies[j.body] : scene).add(mesh);
      ++counts.joints;
      return mesh;
    };
    M.joints.forEach(jointMesh);
    // ground's points: a dark base plate under each, across up
    for (const p of M.ground) {
      const mesh = along(new THREE.Mesh(new THREE.BoxGeometry(7 * thick, 1.2 * thick, 7 * thick),
        new THREE.MeshLambertMaterial({ color: 0x555555 })), up);
      mesh.position.copy(v3(p)).addScaledVector(up, -3.5 * thick);
      scene.add(mesh);
    }
    // force elements: a spring-damper as a coil between its markers, a body load as an arrow
    const coilPoints = 160, turns = 8;
    const forces = M.forces.map((f) => {
      ++counts.forces;
      if (f.type === 'spring_damper') {
        const geometry = new THREE.BufferGeometry();
        geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * coilPoints), 3));
        const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: 0x333333 }));
        scene.add(line);
        return line;
      }
      const arrow = new THREE.ArrowHelper(v3(f.direction).lengthSq() > 0 ? v3(f.direction) : up.clone().negate(),
        new THREE.Vector3(), 0.2 * span, 0xe08000);
      scene.add(arrow);
      return arrow;
    });
    const coil = (line, a, b) => {
      const d = b.clone().sub(a), n = d.clone().normalize();
      const e1 = new THREE.Vector3(1, 0, 0).cross(n);
      if (e1.lengthSq() < 1e-6) e1.set(0, 1, 0).cross(n);
      e1.normalize();
      const e2 = n.clone().cross(e1), radius = 1.5 * thick, p = line.geometry.attributes.position;
      for (let k = 0; k < coilPoints; ++k) {
        const s = k / (coilPoints - 1), angle = 2 * Math.PI * turns * s;
        const wind = s < 0.1 || s > 0.9 ? 0 : radius;  // straight ends
        const q = a.clone().addScaledVector(d, s).addScaledVector(e1, wind * Math.cos(angle)).addScaledVector(e2, wind * Math.sin(angle));
        p.setXYZ(k, q.x, q.y, q.z);
      }
      p.needsUpdate = true;
      line.geometry.computeBoundingSphere();
    };
    draw = (i) => {
      bodies.forEach((group, b) => {
        const c = bodyColumns[b].map((k) => D.data[k][i]);
        group.position.set(c[0], c[1], c[2]);
        group.quaternion.set(c[4], c[5], c[6], c[3]);  // (x, y, z, w)
      });
      M.forces.forEach((f, k) => {
        if (f.type === 'spring_damper') coil(forces[k], v3(toWorld(f.body, f.point, i)), v3(toWorld(f.body2, f.point2, i)));
        else forces[k].position.copy(v3(toWorld(f.body, f.point, i)));
      });
      renderer.render(scene, camera);
    };
    selftest.scene = counts;
    countPixels = () => {
      const gl = renderer.getContext();
      const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
      const d = new Uint8Array(4 * w * h);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, d);
      let n = 0;
      for (let k = 0; k < d.length; k += 4)
        if (Math.abs(d[k] - background[0]) > 8 || Math.abs(d[k + 1] - background[1]) > 8 || Math.abs(d[k + 2] - background[2]) > 8) ++n;
      return n;
    };
  }

  // ---- time plots ----
  const plots = [];
  const eventTimes = D.events.map((e) => e.t);
  let current = 0;
  // dashed vertical lines at the events, a solid one at the animation's time
  const marks = {
    hooks: {
      draw: [(u) => {
        const c = u.ctx;
        c.save();
        c.lineWidth = 1;
        const line = (t) => {
          const x = u.valToPos(t, 'x', true);
          c.beginPath(); c.moveTo(x, u.bbox.top); c.lineTo(x, u.bbox.top + u.bbox.height); c.stroke();
        };
        c.strokeStyle = '#e08000'; c.setLineDash([4, 4]);
        eventTimes.forEach(line);
        c.strokeStyle = '#444'; c.setLineDash([]);
        line(T[current]);
        c.restore();
      }],
    },
  };
  function plot(title, names, options = {}) {
    const present = names.filter((n) => column(n) >= 0);
    if (present.length === 0) return;
    const box = document.createElement('div');
    box.className = 'plot';
    document.getElementById('plots').appendChild(box);
    const series = [{ label: 't, s' }].concat(present.map((n, k) => ({
      label: isNonUnique(n) ? n.replace(/\*$/, '') + ' (non-unique)' : n,
      stroke: colours[k % colours.length],
      dash: isNonUnique(n) ? [6, 4] : undefined,
      width: 1.5,
    })));
    const data = [T].concat(present.map((n) => D.data[column(n)]));
    const u = new uPlot({
      title, width: Math.max(440, Math.min(720, box.clientWidth)), height: 200, series, plugins: [marks],
      cursor: { sync: { key: 'loopdyn' } },
      scales: { x: { time: false } },
      // small magnitudes (violations: 1e-9 and less) in exponent form, not rounded to 0
      axes: [{}, { size: 70, values: (u, ticks) => ticks.map((v) => (v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(1) : v)) }],
    }, data, box);
    u.names = present;
    plots.push(u);
    selftest.plots[title] = { series: present, points: data[1].filter((v) => v !== null).length };
    return u;
  }
  plot('energy, J', ['energy.kinetic', 'energy.potential', 'energy.work', 'energy.balance']);
  plot('constraint violation', ['violation.position', 'violation.velocity']);
  const chosen = D.columns.filter((n) => /^u\.\d+$/.test(n) || /\.q\d+$/.test(n));
  if (chosen.length > 0) plot('coordinates the integrator carries', chosen.slice(0, 12));

  // reactions: one pair at a time (world axes), non-unique ones dashed
  const pairs = [];
  for (const n of D.columns) {
    const at = n.indexOf('@');
    if (at > 0 && n.indexOf('.joint.') < 0 && !pairs.includes(n.slice(0, at))) pairs.push(n.slice(0, at));
  }
  if (pairs.length > 0) {
    const pick = document.getElementById('pair');
    for (const p of pairs) { const o = document.createElement('option'); o.value = o.textContent = p; pick.appendChild(o); }
    let reactionPlot = null;
    const show = () => {
      if (reactionPlot) { reactionPlot.destroy(); plots.splice(plots.indexOf(reactionPlot), 1); }
      const names = D.columns.filter((n) => n.startsWith(pick.value + '@') && n.indexOf('.joint.') < 0);
      reactionPlot = plot('reaction of ' + pick.value + ' (world axes)', names);
      document.getElementById('plots').appendChild(document.getElementById('reactions'));
      document.getElementById('plots').appendChild(reactionPlot.root.parentNode);
    };
    pick.addEventListener('change', show);
    show();
  } else {
    document.getElementById('reactions').hidden = true;
  }

  // ---- tables (names, messages and events come from the user's file: written as text) ----
  const esc = (x) => String(x).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const table = (rows, head) => '<table><tr>' + head.map((h) => `<th>${h}</th>`).join('') + '</tr>' +
    rows.map((r) => '<tr>' + r.map((c) => `<td>${c}</td>`).join('') + '</tr>').join('') + '</table>';
  const S = D.summary, A = D.analysis;
  const fmt = (x) => (typeof x === 'number' ? Number(x.toPrecision(4)) : x);
  const st = S.statistics || {}, en = S.energy || {}, vi = S.violation || {};
  const summaryRows = [
    ['result', S.ok ? 'ok' : '<span class="nonunique">FAILED</span> ' + esc(S.failure)],
    ['formulation', `${S.formulation} (${S.coordinates} coordinates)`],
    ['integrator', `${S.integrator}, rtol ${S.rtol}, atol ${S.atol}; stabilisation ${S.stabilization}`],
    ['time', `0 .. ${S.t_end} s, ${S.samples} samples`],
    ['steps', `${st.steps} accepted, ${st.rejected_steps} rejected, ${st.rhs_evaluations} right-hand sides`],
    ['wall time', `${fmt(st.wall_seconds)} s`],
    ['energy balance', `drift ${fmt(en.drift_max)} J = ${fmt(en.relative_drift)} of ${fmt(en.scale)} J`],
    ['constraints', Object.keys(vi).map((k) => `${k} ${fmt(vi[k])}`).join(', ')],
    ['singular passages', String((S.singular_passages || []).length)],
  ].concat((S.warnings || []).map((w) => ['warning', esc(w)]));
  document.getElementById('summary').innerHTML = table(summaryRows, ['run', '']);
  document.getElementById('structure').innerHTML = table(
    ['rank', 'redundancy', 'mobility', 'singular', 'n', 'm', 'h'].filter((k) => k in A).map((k) => [k, String(A[k])]),
    ['structure', '']);
  document.getElementById('uniqueness').innerHTML = table(A.pairs.map((p) => [esc(p.name), esc(p.type),
    p.unique ? '<span class="unique">unique</span>' : '<span class="nonunique">NON-UNIQUE</span>',
    p.components_unique ? 'unique' : (p.unique_components.length ? 'only ' + esc(p.unique_components.join(', ')) : 'non-unique')]),
  ['pair', 'type', 'reaction', 'multipliers']);
  document.getElementById('events').innerHTML = D.events.length === 0 ? 'none' :
    '<ul>' + D.events.map((e) => `<li>${esc(e.text)}</li>`).join('') + '</ul>';

  // ---- playback ----
  const slider = document.getElementById('time');
  slider.max = String(samples - 1);
  const clock = document.getElementById('clock');
  const speed = document.getElementById('speed');
  const button = document.getElementById('play');
  let playing = false, last = null, t = T[0];
  const indexAt = (time) => {
    let a = 0, b = samples - 1;
    while (a < b) { const m = (a + b + 1) >> 1; if (T[m] <= time) a = m; else b = m - 1; }
    return a;
  };
  let lastPlotUpdate = 0;
  const show = (i, now) => {
    current = i;
    draw(i);
    slider.value = String(i);
    clock.textContent = 't = ' + T[i].toFixed(3) + ' s';
    if (now === undefined || now - lastPlotUpdate > 100) { plots.forEach((u) => u.redraw(false)); lastPlotUpdate = now || 0; }
  };
  const frame = (now) => {
    if (!playing) return;
    if (last !== null) t += (now - last) / 1000 * Number(speed.value);
    last = now;
    if (t >= T[samples - 1]) { t = T[samples - 1]; playing = false; button.textContent = 'play'; }
    show(indexAt(t), now);
    if (playing) requestAnimationFrame(frame);
  };
  button.addEventListener('click', () => {
    playing = !playing;
    button.textContent = playing ? 'pause' : 'play';
    if (playing) { if (t >= T[samples - 1]) t = T[0]; last = null; requestAnimationFrame(frame); }
  });
  slider.addEventListener('input', () => { playing = false; button.textContent = 'play'; t = T[Number(slider.value)]; show(Number(slider.value)); });

  show(0);
  selftest.pixels = countPixels();
  selftest.samples = samples;
  selftest.ready = true;
  document.getElementById('loopdyn-selftest').textContent = JSON.stringify(selftest);
})();
