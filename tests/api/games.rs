use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "./migrations")]
async fn the_catalogue_lists_nomination_whist_with_its_options_and_defaults(pool: PgPool) {
    let app = spawn_app(pool).await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let whist = games
        .as_array()
        .expect("array")
        .iter()
        .find(|g| g["id"] == "nomination-whist")
        .expect("listed");
    assert_eq!(whist["min_players"], 3);
    assert_eq!(whist["max_players"], 7);
    let option = |name: &str| {
        whist["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["name"] == name)
            .cloned()
    };
    assert_eq!(option("hook_from_hand_size").expect("hook")["default"], 4);
    assert_eq!(option("trumps").expect("trumps")["default"]["rule"], "rotation");
    assert_eq!(
        option("scoring").expect("scoring")["default"],
        "tricks_plus_ten_for_exact"
    );
}
