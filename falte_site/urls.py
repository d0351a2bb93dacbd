from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

# The admin's model list beside every page takes 300 pixels a laptop's screen needs for the tables;
# the admin index and the researcher console (/console/) are the way around.
admin.site.enable_nav_sidebar = False

urlpatterns = [
    # The researcher's home is the console; the admin's "View site" link leads there too.
    path("", RedirectView.as_view(pattern_name="console:home", permanent=False), name="home"),
    path("admin/", admin.site.urls),
    path("console/", include("console.urls")),
    path("", include("annotations.urls")),
    path("", include("qualification.urls")),
    path("api/exports/", include("exports.urls")),
    path("api/", include("api.urls")),
]

# Django's own answers (a path that matches nothing, an unexpected error) are
# JSON under /api/, like the APIs' answers; see falte_site/views.py.
handler400 = "falte_site.views.bad_request"
handler403 = "falte_site.views.permission_denied"
handler404 = "falte_site.views.page_not_found"
handler500 = "falte_site.views.server_error"
