// Starts Swagger UI on the live OpenAPI document; everything it loads is served by this Worker.
window.addEventListener("DOMContentLoaded", function () {
  window.SwaggerUIBundle({
    url: "/api/v2/openapi.json",
    dom_id: "#reference",
    deepLinking: true,
    tryItOutEnabled: false,
  });
});
