// Trades the admin token for the session cookie (POST /api/login), then opens the dashboard.
const form = document.getElementById('login');
const error = document.getElementById('error');
form.addEventListener('submit', async (e) => {
  e.preventDefault();
  error.textContent = '';
  const token = document.getElementById('token').value.trim();
  const res = await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  if (res.ok) location.href = '/';
  else error.textContent = (await res.json().catch(() => ({}))).detail ?? `login failed (${res.status})`;
});
