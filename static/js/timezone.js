// Tell the server this browser's time zone (an IANA name), so times are shown in it until
// the person picks one on their account page (core/accounts/zones.py reads the cookie).
(function () {
  var zone;
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
  if (!zone || document.cookie.split("; ").indexOf("tz=" + zone) !== -1) return;
  document.cookie = "tz=" + zone + "; path=/; max-age=31536000; samesite=lax";
})();
