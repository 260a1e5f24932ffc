#ifndef CLAVIS_PAM_H
#define CLAVIS_PAM_H

// pam_clavis: a PAM module (auth and password) that unlocks the user's Clavis keychain with the login password
// and re-wraps it when the password changes. Its entry points are PAM's (pam_sm_authenticate, pam_sm_setcred,
// pam_sm_chauthtok), declared by <security/pam_modules.h>.

#endif
