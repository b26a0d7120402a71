"""Who is asking and whether to trust the request: the identity cookie, the web hardening
(headers, origin checks), the admin sign-in throttle."""
